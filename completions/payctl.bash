_payctl() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="payctl"
                ;;
            payctl,address)
                cmd="payctl__subcmd__address"
                ;;
            payctl,completions)
                cmd="payctl__subcmd__completions"
                ;;
            payctl,config)
                cmd="payctl__subcmd__config"
                ;;
            payctl,demo)
                cmd="payctl__subcmd__demo"
                ;;
            payctl,dict)
                cmd="payctl__subcmd__dict"
                ;;
            payctl,events)
                cmd="payctl__subcmd__events"
                ;;
            payctl,generate-docs)
                cmd="payctl__subcmd__generate__subcmd__docs"
                ;;
            payctl,help)
                cmd="payctl__subcmd__help"
                ;;
            payctl,history)
                cmd="payctl__subcmd__history"
                ;;
            payctl,init)
                cmd="payctl__subcmd__init"
                ;;
            payctl,instrument)
                cmd="payctl__subcmd__instrument"
                ;;
            payctl,key)
                cmd="payctl__subcmd__key"
                ;;
            payctl,listen)
                cmd="payctl__subcmd__listen"
                ;;
            payctl,openapi)
                cmd="payctl__subcmd__openapi"
                ;;
            payctl,profile)
                cmd="payctl__subcmd__profile"
                ;;
            payctl,program)
                cmd="payctl__subcmd__program"
                ;;
            payctl,serve)
                cmd="payctl__subcmd__serve"
                ;;
            payctl,sim)
                cmd="payctl__subcmd__sim"
                ;;
            payctl,store)
                cmd="payctl__subcmd__store"
                ;;
            payctl,template)
                cmd="payctl__subcmd__template"
                ;;
            payctl,txn)
                cmd="payctl__subcmd__txn"
                ;;
            payctl,webhook)
                cmd="payctl__subcmd__webhook"
                ;;
            payctl,worker)
                cmd="payctl__subcmd__worker"
                ;;
            payctl__subcmd__address,create)
                cmd="payctl__subcmd__address__subcmd__create"
                ;;
            payctl__subcmd__address,delete)
                cmd="payctl__subcmd__address__subcmd__delete"
                ;;
            payctl__subcmd__address,get)
                cmd="payctl__subcmd__address__subcmd__get"
                ;;
            payctl__subcmd__address,help)
                cmd="payctl__subcmd__address__subcmd__help"
                ;;
            payctl__subcmd__address,list)
                cmd="payctl__subcmd__address__subcmd__list"
                ;;
            payctl__subcmd__address,update)
                cmd="payctl__subcmd__address__subcmd__update"
                ;;
            payctl__subcmd__address__subcmd__help,create)
                cmd="payctl__subcmd__address__subcmd__help__subcmd__create"
                ;;
            payctl__subcmd__address__subcmd__help,delete)
                cmd="payctl__subcmd__address__subcmd__help__subcmd__delete"
                ;;
            payctl__subcmd__address__subcmd__help,get)
                cmd="payctl__subcmd__address__subcmd__help__subcmd__get"
                ;;
            payctl__subcmd__address__subcmd__help,help)
                cmd="payctl__subcmd__address__subcmd__help__subcmd__help"
                ;;
            payctl__subcmd__address__subcmd__help,list)
                cmd="payctl__subcmd__address__subcmd__help__subcmd__list"
                ;;
            payctl__subcmd__address__subcmd__help,update)
                cmd="payctl__subcmd__address__subcmd__help__subcmd__update"
                ;;
            payctl__subcmd__config,delete-context)
                cmd="payctl__subcmd__config__subcmd__delete__subcmd__context"
                ;;
            payctl__subcmd__config,help)
                cmd="payctl__subcmd__config__subcmd__help"
                ;;
            payctl__subcmd__config,set-context)
                cmd="payctl__subcmd__config__subcmd__set__subcmd__context"
                ;;
            payctl__subcmd__config,use-context)
                cmd="payctl__subcmd__config__subcmd__use__subcmd__context"
                ;;
            payctl__subcmd__config,view)
                cmd="payctl__subcmd__config__subcmd__view"
                ;;
            payctl__subcmd__config__subcmd__help,delete-context)
                cmd="payctl__subcmd__config__subcmd__help__subcmd__delete__subcmd__context"
                ;;
            payctl__subcmd__config__subcmd__help,help)
                cmd="payctl__subcmd__config__subcmd__help__subcmd__help"
                ;;
            payctl__subcmd__config__subcmd__help,set-context)
                cmd="payctl__subcmd__config__subcmd__help__subcmd__set__subcmd__context"
                ;;
            payctl__subcmd__config__subcmd__help,use-context)
                cmd="payctl__subcmd__config__subcmd__help__subcmd__use__subcmd__context"
                ;;
            payctl__subcmd__config__subcmd__help,view)
                cmd="payctl__subcmd__config__subcmd__help__subcmd__view"
                ;;
            payctl__subcmd__dict,help)
                cmd="payctl__subcmd__dict__subcmd__help"
                ;;
            payctl__subcmd__dict,list)
                cmd="payctl__subcmd__dict__subcmd__list"
                ;;
            payctl__subcmd__dict__subcmd__help,help)
                cmd="payctl__subcmd__dict__subcmd__help__subcmd__help"
                ;;
            payctl__subcmd__dict__subcmd__help,list)
                cmd="payctl__subcmd__dict__subcmd__help__subcmd__list"
                ;;
            payctl__subcmd__events,get)
                cmd="payctl__subcmd__events__subcmd__get"
                ;;
            payctl__subcmd__events,help)
                cmd="payctl__subcmd__events__subcmd__help"
                ;;
            payctl__subcmd__events,list)
                cmd="payctl__subcmd__events__subcmd__list"
                ;;
            payctl__subcmd__events,resend)
                cmd="payctl__subcmd__events__subcmd__resend"
                ;;
            payctl__subcmd__events,tail)
                cmd="payctl__subcmd__events__subcmd__tail"
                ;;
            payctl__subcmd__events__subcmd__help,get)
                cmd="payctl__subcmd__events__subcmd__help__subcmd__get"
                ;;
            payctl__subcmd__events__subcmd__help,help)
                cmd="payctl__subcmd__events__subcmd__help__subcmd__help"
                ;;
            payctl__subcmd__events__subcmd__help,list)
                cmd="payctl__subcmd__events__subcmd__help__subcmd__list"
                ;;
            payctl__subcmd__events__subcmd__help,resend)
                cmd="payctl__subcmd__events__subcmd__help__subcmd__resend"
                ;;
            payctl__subcmd__events__subcmd__help,tail)
                cmd="payctl__subcmd__events__subcmd__help__subcmd__tail"
                ;;
            payctl__subcmd__help,address)
                cmd="payctl__subcmd__help__subcmd__address"
                ;;
            payctl__subcmd__help,completions)
                cmd="payctl__subcmd__help__subcmd__completions"
                ;;
            payctl__subcmd__help,config)
                cmd="payctl__subcmd__help__subcmd__config"
                ;;
            payctl__subcmd__help,demo)
                cmd="payctl__subcmd__help__subcmd__demo"
                ;;
            payctl__subcmd__help,dict)
                cmd="payctl__subcmd__help__subcmd__dict"
                ;;
            payctl__subcmd__help,events)
                cmd="payctl__subcmd__help__subcmd__events"
                ;;
            payctl__subcmd__help,generate-docs)
                cmd="payctl__subcmd__help__subcmd__generate__subcmd__docs"
                ;;
            payctl__subcmd__help,help)
                cmd="payctl__subcmd__help__subcmd__help"
                ;;
            payctl__subcmd__help,history)
                cmd="payctl__subcmd__help__subcmd__history"
                ;;
            payctl__subcmd__help,init)
                cmd="payctl__subcmd__help__subcmd__init"
                ;;
            payctl__subcmd__help,instrument)
                cmd="payctl__subcmd__help__subcmd__instrument"
                ;;
            payctl__subcmd__help,key)
                cmd="payctl__subcmd__help__subcmd__key"
                ;;
            payctl__subcmd__help,listen)
                cmd="payctl__subcmd__help__subcmd__listen"
                ;;
            payctl__subcmd__help,openapi)
                cmd="payctl__subcmd__help__subcmd__openapi"
                ;;
            payctl__subcmd__help,profile)
                cmd="payctl__subcmd__help__subcmd__profile"
                ;;
            payctl__subcmd__help,program)
                cmd="payctl__subcmd__help__subcmd__program"
                ;;
            payctl__subcmd__help,serve)
                cmd="payctl__subcmd__help__subcmd__serve"
                ;;
            payctl__subcmd__help,sim)
                cmd="payctl__subcmd__help__subcmd__sim"
                ;;
            payctl__subcmd__help,store)
                cmd="payctl__subcmd__help__subcmd__store"
                ;;
            payctl__subcmd__help,template)
                cmd="payctl__subcmd__help__subcmd__template"
                ;;
            payctl__subcmd__help,txn)
                cmd="payctl__subcmd__help__subcmd__txn"
                ;;
            payctl__subcmd__help,webhook)
                cmd="payctl__subcmd__help__subcmd__webhook"
                ;;
            payctl__subcmd__help,worker)
                cmd="payctl__subcmd__help__subcmd__worker"
                ;;
            payctl__subcmd__help__subcmd__address,create)
                cmd="payctl__subcmd__help__subcmd__address__subcmd__create"
                ;;
            payctl__subcmd__help__subcmd__address,delete)
                cmd="payctl__subcmd__help__subcmd__address__subcmd__delete"
                ;;
            payctl__subcmd__help__subcmd__address,get)
                cmd="payctl__subcmd__help__subcmd__address__subcmd__get"
                ;;
            payctl__subcmd__help__subcmd__address,list)
                cmd="payctl__subcmd__help__subcmd__address__subcmd__list"
                ;;
            payctl__subcmd__help__subcmd__address,update)
                cmd="payctl__subcmd__help__subcmd__address__subcmd__update"
                ;;
            payctl__subcmd__help__subcmd__config,delete-context)
                cmd="payctl__subcmd__help__subcmd__config__subcmd__delete__subcmd__context"
                ;;
            payctl__subcmd__help__subcmd__config,set-context)
                cmd="payctl__subcmd__help__subcmd__config__subcmd__set__subcmd__context"
                ;;
            payctl__subcmd__help__subcmd__config,use-context)
                cmd="payctl__subcmd__help__subcmd__config__subcmd__use__subcmd__context"
                ;;
            payctl__subcmd__help__subcmd__config,view)
                cmd="payctl__subcmd__help__subcmd__config__subcmd__view"
                ;;
            payctl__subcmd__help__subcmd__dict,list)
                cmd="payctl__subcmd__help__subcmd__dict__subcmd__list"
                ;;
            payctl__subcmd__help__subcmd__events,get)
                cmd="payctl__subcmd__help__subcmd__events__subcmd__get"
                ;;
            payctl__subcmd__help__subcmd__events,list)
                cmd="payctl__subcmd__help__subcmd__events__subcmd__list"
                ;;
            payctl__subcmd__help__subcmd__events,resend)
                cmd="payctl__subcmd__help__subcmd__events__subcmd__resend"
                ;;
            payctl__subcmd__help__subcmd__events,tail)
                cmd="payctl__subcmd__help__subcmd__events__subcmd__tail"
                ;;
            payctl__subcmd__help__subcmd__instrument,create)
                cmd="payctl__subcmd__help__subcmd__instrument__subcmd__create"
                ;;
            payctl__subcmd__help__subcmd__instrument,get)
                cmd="payctl__subcmd__help__subcmd__instrument__subcmd__get"
                ;;
            payctl__subcmd__help__subcmd__instrument,list)
                cmd="payctl__subcmd__help__subcmd__instrument__subcmd__list"
                ;;
            payctl__subcmd__help__subcmd__instrument,update)
                cmd="payctl__subcmd__help__subcmd__instrument__subcmd__update"
                ;;
            payctl__subcmd__help__subcmd__key,create)
                cmd="payctl__subcmd__help__subcmd__key__subcmd__create"
                ;;
            payctl__subcmd__help__subcmd__key,list)
                cmd="payctl__subcmd__help__subcmd__key__subcmd__list"
                ;;
            payctl__subcmd__help__subcmd__key,revoke)
                cmd="payctl__subcmd__help__subcmd__key__subcmd__revoke"
                ;;
            payctl__subcmd__help__subcmd__profile,create)
                cmd="payctl__subcmd__help__subcmd__profile__subcmd__create"
                ;;
            payctl__subcmd__help__subcmd__profile,get)
                cmd="payctl__subcmd__help__subcmd__profile__subcmd__get"
                ;;
            payctl__subcmd__help__subcmd__profile,import)
                cmd="payctl__subcmd__help__subcmd__profile__subcmd__import"
                ;;
            payctl__subcmd__help__subcmd__profile,list)
                cmd="payctl__subcmd__help__subcmd__profile__subcmd__list"
                ;;
            payctl__subcmd__help__subcmd__profile,update)
                cmd="payctl__subcmd__help__subcmd__profile__subcmd__update"
                ;;
            payctl__subcmd__help__subcmd__program,applications)
                cmd="payctl__subcmd__help__subcmd__program__subcmd__applications"
                ;;
            payctl__subcmd__help__subcmd__program,attach)
                cmd="payctl__subcmd__help__subcmd__program__subcmd__attach"
                ;;
            payctl__subcmd__help__subcmd__program,list)
                cmd="payctl__subcmd__help__subcmd__program__subcmd__list"
                ;;
            payctl__subcmd__help__subcmd__program,profile)
                cmd="payctl__subcmd__help__subcmd__program__subcmd__profile"
                ;;
            payctl__subcmd__help__subcmd__program,profiles)
                cmd="payctl__subcmd__help__subcmd__program__subcmd__profiles"
                ;;
            payctl__subcmd__help__subcmd__sim,rule)
                cmd="payctl__subcmd__help__subcmd__sim__subcmd__rule"
                ;;
            payctl__subcmd__help__subcmd__sim__subcmd__rule,add)
                cmd="payctl__subcmd__help__subcmd__sim__subcmd__rule__subcmd__add"
                ;;
            payctl__subcmd__help__subcmd__sim__subcmd__rule,delete)
                cmd="payctl__subcmd__help__subcmd__sim__subcmd__rule__subcmd__delete"
                ;;
            payctl__subcmd__help__subcmd__sim__subcmd__rule,list)
                cmd="payctl__subcmd__help__subcmd__sim__subcmd__rule__subcmd__list"
                ;;
            payctl__subcmd__help__subcmd__store,check)
                cmd="payctl__subcmd__help__subcmd__store__subcmd__check"
                ;;
            payctl__subcmd__help__subcmd__store,migrate)
                cmd="payctl__subcmd__help__subcmd__store__subcmd__migrate"
                ;;
            payctl__subcmd__help__subcmd__store,reset)
                cmd="payctl__subcmd__help__subcmd__store__subcmd__reset"
                ;;
            payctl__subcmd__help__subcmd__store,snapshot)
                cmd="payctl__subcmd__help__subcmd__store__subcmd__snapshot"
                ;;
            payctl__subcmd__help__subcmd__store__subcmd__snapshot,delete)
                cmd="payctl__subcmd__help__subcmd__store__subcmd__snapshot__subcmd__delete"
                ;;
            payctl__subcmd__help__subcmd__store__subcmd__snapshot,list)
                cmd="payctl__subcmd__help__subcmd__store__subcmd__snapshot__subcmd__list"
                ;;
            payctl__subcmd__help__subcmd__store__subcmd__snapshot,restore)
                cmd="payctl__subcmd__help__subcmd__store__subcmd__snapshot__subcmd__restore"
                ;;
            payctl__subcmd__help__subcmd__store__subcmd__snapshot,save)
                cmd="payctl__subcmd__help__subcmd__store__subcmd__snapshot__subcmd__save"
                ;;
            payctl__subcmd__help__subcmd__template,list)
                cmd="payctl__subcmd__help__subcmd__template__subcmd__list"
                ;;
            payctl__subcmd__help__subcmd__template,steps)
                cmd="payctl__subcmd__help__subcmd__template__subcmd__steps"
                ;;
            payctl__subcmd__help__subcmd__txn,create)
                cmd="payctl__subcmd__help__subcmd__txn__subcmd__create"
                ;;
            payctl__subcmd__help__subcmd__txn,get)
                cmd="payctl__subcmd__help__subcmd__txn__subcmd__get"
                ;;
            payctl__subcmd__help__subcmd__txn,list)
                cmd="payctl__subcmd__help__subcmd__txn__subcmd__list"
                ;;
            payctl__subcmd__help__subcmd__txn,parameters)
                cmd="payctl__subcmd__help__subcmd__txn__subcmd__parameters"
                ;;
            payctl__subcmd__help__subcmd__txn,steps)
                cmd="payctl__subcmd__help__subcmd__txn__subcmd__steps"
                ;;
            payctl__subcmd__help__subcmd__webhook,create)
                cmd="payctl__subcmd__help__subcmd__webhook__subcmd__create"
                ;;
            payctl__subcmd__help__subcmd__webhook,delete)
                cmd="payctl__subcmd__help__subcmd__webhook__subcmd__delete"
                ;;
            payctl__subcmd__help__subcmd__webhook,deliver)
                cmd="payctl__subcmd__help__subcmd__webhook__subcmd__deliver"
                ;;
            payctl__subcmd__help__subcmd__webhook,deliveries)
                cmd="payctl__subcmd__help__subcmd__webhook__subcmd__deliveries"
                ;;
            payctl__subcmd__help__subcmd__webhook,get)
                cmd="payctl__subcmd__help__subcmd__webhook__subcmd__get"
                ;;
            payctl__subcmd__help__subcmd__webhook,list)
                cmd="payctl__subcmd__help__subcmd__webhook__subcmd__list"
                ;;
            payctl__subcmd__instrument,create)
                cmd="payctl__subcmd__instrument__subcmd__create"
                ;;
            payctl__subcmd__instrument,get)
                cmd="payctl__subcmd__instrument__subcmd__get"
                ;;
            payctl__subcmd__instrument,help)
                cmd="payctl__subcmd__instrument__subcmd__help"
                ;;
            payctl__subcmd__instrument,list)
                cmd="payctl__subcmd__instrument__subcmd__list"
                ;;
            payctl__subcmd__instrument,update)
                cmd="payctl__subcmd__instrument__subcmd__update"
                ;;
            payctl__subcmd__instrument__subcmd__help,create)
                cmd="payctl__subcmd__instrument__subcmd__help__subcmd__create"
                ;;
            payctl__subcmd__instrument__subcmd__help,get)
                cmd="payctl__subcmd__instrument__subcmd__help__subcmd__get"
                ;;
            payctl__subcmd__instrument__subcmd__help,help)
                cmd="payctl__subcmd__instrument__subcmd__help__subcmd__help"
                ;;
            payctl__subcmd__instrument__subcmd__help,list)
                cmd="payctl__subcmd__instrument__subcmd__help__subcmd__list"
                ;;
            payctl__subcmd__instrument__subcmd__help,update)
                cmd="payctl__subcmd__instrument__subcmd__help__subcmd__update"
                ;;
            payctl__subcmd__key,create)
                cmd="payctl__subcmd__key__subcmd__create"
                ;;
            payctl__subcmd__key,help)
                cmd="payctl__subcmd__key__subcmd__help"
                ;;
            payctl__subcmd__key,list)
                cmd="payctl__subcmd__key__subcmd__list"
                ;;
            payctl__subcmd__key,revoke)
                cmd="payctl__subcmd__key__subcmd__revoke"
                ;;
            payctl__subcmd__key__subcmd__help,create)
                cmd="payctl__subcmd__key__subcmd__help__subcmd__create"
                ;;
            payctl__subcmd__key__subcmd__help,help)
                cmd="payctl__subcmd__key__subcmd__help__subcmd__help"
                ;;
            payctl__subcmd__key__subcmd__help,list)
                cmd="payctl__subcmd__key__subcmd__help__subcmd__list"
                ;;
            payctl__subcmd__key__subcmd__help,revoke)
                cmd="payctl__subcmd__key__subcmd__help__subcmd__revoke"
                ;;
            payctl__subcmd__profile,create)
                cmd="payctl__subcmd__profile__subcmd__create"
                ;;
            payctl__subcmd__profile,get)
                cmd="payctl__subcmd__profile__subcmd__get"
                ;;
            payctl__subcmd__profile,help)
                cmd="payctl__subcmd__profile__subcmd__help"
                ;;
            payctl__subcmd__profile,import)
                cmd="payctl__subcmd__profile__subcmd__import"
                ;;
            payctl__subcmd__profile,list)
                cmd="payctl__subcmd__profile__subcmd__list"
                ;;
            payctl__subcmd__profile,update)
                cmd="payctl__subcmd__profile__subcmd__update"
                ;;
            payctl__subcmd__profile__subcmd__help,create)
                cmd="payctl__subcmd__profile__subcmd__help__subcmd__create"
                ;;
            payctl__subcmd__profile__subcmd__help,get)
                cmd="payctl__subcmd__profile__subcmd__help__subcmd__get"
                ;;
            payctl__subcmd__profile__subcmd__help,help)
                cmd="payctl__subcmd__profile__subcmd__help__subcmd__help"
                ;;
            payctl__subcmd__profile__subcmd__help,import)
                cmd="payctl__subcmd__profile__subcmd__help__subcmd__import"
                ;;
            payctl__subcmd__profile__subcmd__help,list)
                cmd="payctl__subcmd__profile__subcmd__help__subcmd__list"
                ;;
            payctl__subcmd__profile__subcmd__help,update)
                cmd="payctl__subcmd__profile__subcmd__help__subcmd__update"
                ;;
            payctl__subcmd__program,applications)
                cmd="payctl__subcmd__program__subcmd__applications"
                ;;
            payctl__subcmd__program,attach)
                cmd="payctl__subcmd__program__subcmd__attach"
                ;;
            payctl__subcmd__program,help)
                cmd="payctl__subcmd__program__subcmd__help"
                ;;
            payctl__subcmd__program,list)
                cmd="payctl__subcmd__program__subcmd__list"
                ;;
            payctl__subcmd__program,profile)
                cmd="payctl__subcmd__program__subcmd__profile"
                ;;
            payctl__subcmd__program,profiles)
                cmd="payctl__subcmd__program__subcmd__profiles"
                ;;
            payctl__subcmd__program__subcmd__help,applications)
                cmd="payctl__subcmd__program__subcmd__help__subcmd__applications"
                ;;
            payctl__subcmd__program__subcmd__help,attach)
                cmd="payctl__subcmd__program__subcmd__help__subcmd__attach"
                ;;
            payctl__subcmd__program__subcmd__help,help)
                cmd="payctl__subcmd__program__subcmd__help__subcmd__help"
                ;;
            payctl__subcmd__program__subcmd__help,list)
                cmd="payctl__subcmd__program__subcmd__help__subcmd__list"
                ;;
            payctl__subcmd__program__subcmd__help,profile)
                cmd="payctl__subcmd__program__subcmd__help__subcmd__profile"
                ;;
            payctl__subcmd__program__subcmd__help,profiles)
                cmd="payctl__subcmd__program__subcmd__help__subcmd__profiles"
                ;;
            payctl__subcmd__sim,help)
                cmd="payctl__subcmd__sim__subcmd__help"
                ;;
            payctl__subcmd__sim,rule)
                cmd="payctl__subcmd__sim__subcmd__rule"
                ;;
            payctl__subcmd__sim__subcmd__help,help)
                cmd="payctl__subcmd__sim__subcmd__help__subcmd__help"
                ;;
            payctl__subcmd__sim__subcmd__help,rule)
                cmd="payctl__subcmd__sim__subcmd__help__subcmd__rule"
                ;;
            payctl__subcmd__sim__subcmd__help__subcmd__rule,add)
                cmd="payctl__subcmd__sim__subcmd__help__subcmd__rule__subcmd__add"
                ;;
            payctl__subcmd__sim__subcmd__help__subcmd__rule,delete)
                cmd="payctl__subcmd__sim__subcmd__help__subcmd__rule__subcmd__delete"
                ;;
            payctl__subcmd__sim__subcmd__help__subcmd__rule,list)
                cmd="payctl__subcmd__sim__subcmd__help__subcmd__rule__subcmd__list"
                ;;
            payctl__subcmd__sim__subcmd__rule,add)
                cmd="payctl__subcmd__sim__subcmd__rule__subcmd__add"
                ;;
            payctl__subcmd__sim__subcmd__rule,delete)
                cmd="payctl__subcmd__sim__subcmd__rule__subcmd__delete"
                ;;
            payctl__subcmd__sim__subcmd__rule,help)
                cmd="payctl__subcmd__sim__subcmd__rule__subcmd__help"
                ;;
            payctl__subcmd__sim__subcmd__rule,list)
                cmd="payctl__subcmd__sim__subcmd__rule__subcmd__list"
                ;;
            payctl__subcmd__sim__subcmd__rule__subcmd__help,add)
                cmd="payctl__subcmd__sim__subcmd__rule__subcmd__help__subcmd__add"
                ;;
            payctl__subcmd__sim__subcmd__rule__subcmd__help,delete)
                cmd="payctl__subcmd__sim__subcmd__rule__subcmd__help__subcmd__delete"
                ;;
            payctl__subcmd__sim__subcmd__rule__subcmd__help,help)
                cmd="payctl__subcmd__sim__subcmd__rule__subcmd__help__subcmd__help"
                ;;
            payctl__subcmd__sim__subcmd__rule__subcmd__help,list)
                cmd="payctl__subcmd__sim__subcmd__rule__subcmd__help__subcmd__list"
                ;;
            payctl__subcmd__store,check)
                cmd="payctl__subcmd__store__subcmd__check"
                ;;
            payctl__subcmd__store,help)
                cmd="payctl__subcmd__store__subcmd__help"
                ;;
            payctl__subcmd__store,migrate)
                cmd="payctl__subcmd__store__subcmd__migrate"
                ;;
            payctl__subcmd__store,reset)
                cmd="payctl__subcmd__store__subcmd__reset"
                ;;
            payctl__subcmd__store,snapshot)
                cmd="payctl__subcmd__store__subcmd__snapshot"
                ;;
            payctl__subcmd__store__subcmd__help,check)
                cmd="payctl__subcmd__store__subcmd__help__subcmd__check"
                ;;
            payctl__subcmd__store__subcmd__help,help)
                cmd="payctl__subcmd__store__subcmd__help__subcmd__help"
                ;;
            payctl__subcmd__store__subcmd__help,migrate)
                cmd="payctl__subcmd__store__subcmd__help__subcmd__migrate"
                ;;
            payctl__subcmd__store__subcmd__help,reset)
                cmd="payctl__subcmd__store__subcmd__help__subcmd__reset"
                ;;
            payctl__subcmd__store__subcmd__help,snapshot)
                cmd="payctl__subcmd__store__subcmd__help__subcmd__snapshot"
                ;;
            payctl__subcmd__store__subcmd__help__subcmd__snapshot,delete)
                cmd="payctl__subcmd__store__subcmd__help__subcmd__snapshot__subcmd__delete"
                ;;
            payctl__subcmd__store__subcmd__help__subcmd__snapshot,list)
                cmd="payctl__subcmd__store__subcmd__help__subcmd__snapshot__subcmd__list"
                ;;
            payctl__subcmd__store__subcmd__help__subcmd__snapshot,restore)
                cmd="payctl__subcmd__store__subcmd__help__subcmd__snapshot__subcmd__restore"
                ;;
            payctl__subcmd__store__subcmd__help__subcmd__snapshot,save)
                cmd="payctl__subcmd__store__subcmd__help__subcmd__snapshot__subcmd__save"
                ;;
            payctl__subcmd__store__subcmd__snapshot,delete)
                cmd="payctl__subcmd__store__subcmd__snapshot__subcmd__delete"
                ;;
            payctl__subcmd__store__subcmd__snapshot,help)
                cmd="payctl__subcmd__store__subcmd__snapshot__subcmd__help"
                ;;
            payctl__subcmd__store__subcmd__snapshot,list)
                cmd="payctl__subcmd__store__subcmd__snapshot__subcmd__list"
                ;;
            payctl__subcmd__store__subcmd__snapshot,restore)
                cmd="payctl__subcmd__store__subcmd__snapshot__subcmd__restore"
                ;;
            payctl__subcmd__store__subcmd__snapshot,save)
                cmd="payctl__subcmd__store__subcmd__snapshot__subcmd__save"
                ;;
            payctl__subcmd__store__subcmd__snapshot__subcmd__help,delete)
                cmd="payctl__subcmd__store__subcmd__snapshot__subcmd__help__subcmd__delete"
                ;;
            payctl__subcmd__store__subcmd__snapshot__subcmd__help,help)
                cmd="payctl__subcmd__store__subcmd__snapshot__subcmd__help__subcmd__help"
                ;;
            payctl__subcmd__store__subcmd__snapshot__subcmd__help,list)
                cmd="payctl__subcmd__store__subcmd__snapshot__subcmd__help__subcmd__list"
                ;;
            payctl__subcmd__store__subcmd__snapshot__subcmd__help,restore)
                cmd="payctl__subcmd__store__subcmd__snapshot__subcmd__help__subcmd__restore"
                ;;
            payctl__subcmd__store__subcmd__snapshot__subcmd__help,save)
                cmd="payctl__subcmd__store__subcmd__snapshot__subcmd__help__subcmd__save"
                ;;
            payctl__subcmd__template,help)
                cmd="payctl__subcmd__template__subcmd__help"
                ;;
            payctl__subcmd__template,list)
                cmd="payctl__subcmd__template__subcmd__list"
                ;;
            payctl__subcmd__template,steps)
                cmd="payctl__subcmd__template__subcmd__steps"
                ;;
            payctl__subcmd__template__subcmd__help,help)
                cmd="payctl__subcmd__template__subcmd__help__subcmd__help"
                ;;
            payctl__subcmd__template__subcmd__help,list)
                cmd="payctl__subcmd__template__subcmd__help__subcmd__list"
                ;;
            payctl__subcmd__template__subcmd__help,steps)
                cmd="payctl__subcmd__template__subcmd__help__subcmd__steps"
                ;;
            payctl__subcmd__txn,create)
                cmd="payctl__subcmd__txn__subcmd__create"
                ;;
            payctl__subcmd__txn,get)
                cmd="payctl__subcmd__txn__subcmd__get"
                ;;
            payctl__subcmd__txn,help)
                cmd="payctl__subcmd__txn__subcmd__help"
                ;;
            payctl__subcmd__txn,list)
                cmd="payctl__subcmd__txn__subcmd__list"
                ;;
            payctl__subcmd__txn,parameters)
                cmd="payctl__subcmd__txn__subcmd__parameters"
                ;;
            payctl__subcmd__txn,steps)
                cmd="payctl__subcmd__txn__subcmd__steps"
                ;;
            payctl__subcmd__txn__subcmd__help,create)
                cmd="payctl__subcmd__txn__subcmd__help__subcmd__create"
                ;;
            payctl__subcmd__txn__subcmd__help,get)
                cmd="payctl__subcmd__txn__subcmd__help__subcmd__get"
                ;;
            payctl__subcmd__txn__subcmd__help,help)
                cmd="payctl__subcmd__txn__subcmd__help__subcmd__help"
                ;;
            payctl__subcmd__txn__subcmd__help,list)
                cmd="payctl__subcmd__txn__subcmd__help__subcmd__list"
                ;;
            payctl__subcmd__txn__subcmd__help,parameters)
                cmd="payctl__subcmd__txn__subcmd__help__subcmd__parameters"
                ;;
            payctl__subcmd__txn__subcmd__help,steps)
                cmd="payctl__subcmd__txn__subcmd__help__subcmd__steps"
                ;;
            payctl__subcmd__webhook,create)
                cmd="payctl__subcmd__webhook__subcmd__create"
                ;;
            payctl__subcmd__webhook,delete)
                cmd="payctl__subcmd__webhook__subcmd__delete"
                ;;
            payctl__subcmd__webhook,deliver)
                cmd="payctl__subcmd__webhook__subcmd__deliver"
                ;;
            payctl__subcmd__webhook,deliveries)
                cmd="payctl__subcmd__webhook__subcmd__deliveries"
                ;;
            payctl__subcmd__webhook,get)
                cmd="payctl__subcmd__webhook__subcmd__get"
                ;;
            payctl__subcmd__webhook,help)
                cmd="payctl__subcmd__webhook__subcmd__help"
                ;;
            payctl__subcmd__webhook,list)
                cmd="payctl__subcmd__webhook__subcmd__list"
                ;;
            payctl__subcmd__webhook__subcmd__help,create)
                cmd="payctl__subcmd__webhook__subcmd__help__subcmd__create"
                ;;
            payctl__subcmd__webhook__subcmd__help,delete)
                cmd="payctl__subcmd__webhook__subcmd__help__subcmd__delete"
                ;;
            payctl__subcmd__webhook__subcmd__help,deliver)
                cmd="payctl__subcmd__webhook__subcmd__help__subcmd__deliver"
                ;;
            payctl__subcmd__webhook__subcmd__help,deliveries)
                cmd="payctl__subcmd__webhook__subcmd__help__subcmd__deliveries"
                ;;
            payctl__subcmd__webhook__subcmd__help,get)
                cmd="payctl__subcmd__webhook__subcmd__help__subcmd__get"
                ;;
            payctl__subcmd__webhook__subcmd__help,help)
                cmd="payctl__subcmd__webhook__subcmd__help__subcmd__help"
                ;;
            payctl__subcmd__webhook__subcmd__help,list)
                cmd="payctl__subcmd__webhook__subcmd__help__subcmd__list"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        payctl)
            opts="-o -y -h -V --data-dir --database-url --output --context --actor --no-input --no-headers --yes --lock-timeout --color --base-url --http-timeout --ca-cert --help --version profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --data-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json jsonl id" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json jsonl id" -- "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --actor)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lock-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                --base-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --http-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ca-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__address)
            opts="-h --help create list get update delete help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__address__subcmd__create)
            opts="-h --body --address-type-id --default --country-id --state-id --first-name --last-name --address-line1 --address-line2 --city --zip --idempotency-key --dry-run --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --body)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --address-type-id)
                    COMPREPLY=($(compgen -W "Mailing Street Billing" -- "${cur}"))
                    return 0
                    ;;
                --default)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --country-id)
                    COMPREPLY=($(compgen -W "US" -- "${cur}"))
                    return 0
                    ;;
                --state-id)
                    COMPREPLY=($(compgen -W "AL AK AS AZ AR CA CO CT DE DC FL GA GU HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND MP OH OK OR PA PR RI SC SD TN TX VI UT VT VA WA WV WI WY" -- "${cur}"))
                    return 0
                    ;;
                --first-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --last-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --address-line1)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --address-line2)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --city)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --zip)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --idempotency-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__address__subcmd__delete)
            opts="-h --dry-run --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__address__subcmd__get)
            opts="-h --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__address__subcmd__help)
            opts="create list get update delete help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__address__subcmd__help__subcmd__create)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__address__subcmd__help__subcmd__delete)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__address__subcmd__help__subcmd__get)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__address__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__address__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__address__subcmd__help__subcmd__update)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__address__subcmd__list)
            opts="-h --page-size --page-number --after --all --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --page-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --page-number)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__address__subcmd__update)
            opts="-h --body --address-type-id --default --country-id --state-id --first-name --last-name --address-line1 --address-line2 --city --zip --dry-run --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --body)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --address-type-id)
                    COMPREPLY=($(compgen -W "Mailing Street Billing" -- "${cur}"))
                    return 0
                    ;;
                --default)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --country-id)
                    COMPREPLY=($(compgen -W "US" -- "${cur}"))
                    return 0
                    ;;
                --state-id)
                    COMPREPLY=($(compgen -W "AL AK AS AZ AR CA CO CT DE DC FL GA GU HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND MP OH OK OR PA PR RI SC SD TN TX VI UT VT VA WA WV WI WY" -- "${cur}"))
                    return 0
                    ;;
                --first-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --last-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --address-line1)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --address-line2)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --city)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --zip)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__completions)
            opts="-h --help bash elvish fish powershell zsh"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__config)
            opts="-h --help view set-context use-context delete-context help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__config__subcmd__delete__subcmd__context)
            opts="-h --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__config__subcmd__help)
            opts="view set-context use-context delete-context help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__config__subcmd__help__subcmd__delete__subcmd__context)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__config__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__config__subcmd__help__subcmd__set__subcmd__context)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__config__subcmd__help__subcmd__use__subcmd__context)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__config__subcmd__help__subcmd__view)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__config__subcmd__set__subcmd__context)
            opts="-h --base-url --data-dir --database-url --token-env --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --base-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --data-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --database-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token-env)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__config__subcmd__use__subcmd__context)
            opts="-h --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__config__subcmd__view)
            opts="-h --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__demo)
            opts="-h --keep --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__dict)
            opts="-h --help list help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__dict__subcmd__help)
            opts="list help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__dict__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__dict__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__dict__subcmd__list)
            opts="-h --country --page-size --page-number --after --all --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --country)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --page-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --page-number)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__events)
            opts="-h --help list get tail resend help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__events__subcmd__get)
            opts="-h --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__events__subcmd__help)
            opts="list get tail resend help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__events__subcmd__help__subcmd__get)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__events__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__events__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__events__subcmd__help__subcmd__resend)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__events__subcmd__help__subcmd__tail)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__events__subcmd__list)
            opts="-h --type --record --since --page-size --page-number --after --all --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --type)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --record)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --since)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --page-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --page-number)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__events__subcmd__resend)
            opts="-h --webhook --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --webhook)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__events__subcmd__tail)
            opts="-h --type --record --from --interval --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --type)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --record)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__generate__subcmd__docs)
            opts="-h --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help)
            opts="profile address instrument program template txn dict events history webhook listen worker init store sim config completions serve key openapi demo generate-docs help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__address)
            opts="create list get update delete"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__address__subcmd__create)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__address__subcmd__delete)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__address__subcmd__get)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__address__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__address__subcmd__update)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__completions)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__config)
            opts="view set-context use-context delete-context"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__config__subcmd__delete__subcmd__context)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__config__subcmd__set__subcmd__context)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__config__subcmd__use__subcmd__context)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__config__subcmd__view)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__demo)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__dict)
            opts="list"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__dict__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__events)
            opts="list get tail resend"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__events__subcmd__get)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__events__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__events__subcmd__resend)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__events__subcmd__tail)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__generate__subcmd__docs)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__history)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__init)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__instrument)
            opts="create list get update"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__instrument__subcmd__create)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__instrument__subcmd__get)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__instrument__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__instrument__subcmd__update)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__key)
            opts="create list revoke"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__key__subcmd__create)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__key__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__key__subcmd__revoke)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__listen)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__openapi)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__profile)
            opts="create list get update import"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__profile__subcmd__create)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__profile__subcmd__get)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__profile__subcmd__import)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__profile__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__profile__subcmd__update)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__program)
            opts="list applications attach profiles profile"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__program__subcmd__applications)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__program__subcmd__attach)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__program__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__program__subcmd__profile)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__program__subcmd__profiles)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__serve)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__sim)
            opts="rule"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__sim__subcmd__rule)
            opts="add list delete"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__sim__subcmd__rule__subcmd__add)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__sim__subcmd__rule__subcmd__delete)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__sim__subcmd__rule__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__store)
            opts="check migrate snapshot reset"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__store__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__store__subcmd__migrate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__store__subcmd__reset)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__store__subcmd__snapshot)
            opts="save list restore delete"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__store__subcmd__snapshot__subcmd__delete)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__store__subcmd__snapshot__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__store__subcmd__snapshot__subcmd__restore)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__store__subcmd__snapshot__subcmd__save)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__template)
            opts="list steps"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__template__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__template__subcmd__steps)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__txn)
            opts="create get list parameters steps"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__txn__subcmd__create)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__txn__subcmd__get)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__txn__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__txn__subcmd__parameters)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__txn__subcmd__steps)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__webhook)
            opts="create list get delete deliveries deliver"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__webhook__subcmd__create)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__webhook__subcmd__delete)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__webhook__subcmd__deliver)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__webhook__subcmd__deliveries)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__webhook__subcmd__get)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__webhook__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__help__subcmd__worker)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__history)
            opts="-h --page-size --page-number --after --all --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --page-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --page-number)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__init)
            opts="-h --catalog --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --catalog)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__instrument)
            opts="-h --help create list get update help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__instrument__subcmd__create)
            opts="-h --body --type-id --payment-method-id --default --label --change-reason --program --account-number --routing-number --ach-type-id --tag --idempotency-key --dry-run --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --body)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --type-id)
                    COMPREPLY=($(compgen -W "Funding Withdrawal" -- "${cur}"))
                    return 0
                    ;;
                --payment-method-id)
                    COMPREPLY=($(compgen -W "ACH" -- "${cur}"))
                    return 0
                    ;;
                --default)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --label)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --change-reason)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --program)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --account-number)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --routing-number)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ach-type-id)
                    COMPREPLY=($(compgen -W "Savings Checking" -- "${cur}"))
                    return 0
                    ;;
                --tag)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --idempotency-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__instrument__subcmd__get)
            opts="-h --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__instrument__subcmd__help)
            opts="create list get update help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__instrument__subcmd__help__subcmd__create)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__instrument__subcmd__help__subcmd__get)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__instrument__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__instrument__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__instrument__subcmd__help__subcmd__update)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__instrument__subcmd__list)
            opts="-h --page-size --page-number --after --all --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --page-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --page-number)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__instrument__subcmd__update)
            opts="-h --body --type-id --payment-method-id --default --label --change-reason --program --account-number --routing-number --ach-type-id --tag --dry-run --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --body)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --type-id)
                    COMPREPLY=($(compgen -W "Funding Withdrawal" -- "${cur}"))
                    return 0
                    ;;
                --payment-method-id)
                    COMPREPLY=($(compgen -W "ACH" -- "${cur}"))
                    return 0
                    ;;
                --default)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --label)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --change-reason)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --program)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --account-number)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --routing-number)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ach-type-id)
                    COMPREPLY=($(compgen -W "Savings Checking" -- "${cur}"))
                    return 0
                    ;;
                --tag)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__key)
            opts="-h --help create list revoke help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__key__subcmd__create)
            opts="-h --role --expires-in --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --role)
                    COMPREPLY=($(compgen -W "reader writer admin" -- "${cur}"))
                    return 0
                    ;;
                --expires-in)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__key__subcmd__help)
            opts="create list revoke help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__key__subcmd__help__subcmd__create)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__key__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__key__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__key__subcmd__help__subcmd__revoke)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__key__subcmd__list)
            opts="-h --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__key__subcmd__revoke)
            opts="-h --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__listen)
            opts="-h --forward-to --events --secret --interval --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --forward-to)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --events)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --secret)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__openapi)
            opts="-h --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__profile)
            opts="-h --help create list get update import help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__profile__subcmd__create)
            opts="-h --body --customer-type-id --customer-key --tag --first-name --middle-name --last-name --email --date-of-birth --ssn --mobile-phone --home-phone --office-phone --idempotency-key --dry-run --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --body)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --customer-type-id)
                    COMPREPLY=($(compgen -W "Individual Organization Facilitator CustomersOfProgram" -- "${cur}"))
                    return 0
                    ;;
                --customer-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tag)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --first-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --middle-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --last-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --email)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --date-of-birth)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ssn)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mobile-phone)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --home-phone)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --office-phone)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --idempotency-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__profile__subcmd__get)
            opts="-h --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__profile__subcmd__help)
            opts="create list get update import help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__profile__subcmd__help__subcmd__create)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__profile__subcmd__help__subcmd__get)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__profile__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__profile__subcmd__help__subcmd__import)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__profile__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__profile__subcmd__help__subcmd__update)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__profile__subcmd__import)
            opts="-h --skip-existing --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__profile__subcmd__list)
            opts="-h --first-name --last-name --email --customer-key --tag --page-size --page-number --after --all --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --first-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --last-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --email)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --customer-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tag)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --page-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --page-number)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__profile__subcmd__update)
            opts="-h --body --customer-type-id --customer-key --tag --first-name --middle-name --last-name --email --date-of-birth --ssn --mobile-phone --home-phone --office-phone --dry-run --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --body)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --customer-type-id)
                    COMPREPLY=($(compgen -W "Individual Organization Facilitator CustomersOfProgram" -- "${cur}"))
                    return 0
                    ;;
                --customer-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tag)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --first-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --middle-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --last-name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --email)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --date-of-birth)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ssn)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mobile-phone)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --home-phone)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --office-phone)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__program)
            opts="-h --help list applications attach profiles profile help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__program__subcmd__applications)
            opts="-h --page-size --page-number --after --all --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --page-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --page-number)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__program__subcmd__attach)
            opts="-h --reason --body --wait --timeout --idempotency-key --dry-run --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --reason)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --body)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --idempotency-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__program__subcmd__help)
            opts="list applications attach profiles profile help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__program__subcmd__help__subcmd__applications)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__program__subcmd__help__subcmd__attach)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__program__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__program__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__program__subcmd__help__subcmd__profile)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__program__subcmd__help__subcmd__profiles)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__program__subcmd__list)
            opts="-h --page-size --page-number --after --all --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --page-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --page-number)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__program__subcmd__profile)
            opts="-h --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__program__subcmd__profiles)
            opts="-h --page-size --page-number --after --all --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --page-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --page-number)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__serve)
            opts="-q -h --listen --token --token-file --no-worker --worker-interval --no-webhooks --max-body --request-timeout --quiet --log-format --tls-cert --tls-key --rate-limit --no-ui --ui-session --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --listen)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --token-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --worker-interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-body)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --request-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --log-format)
                    COMPREPLY=($(compgen -W "text json" -- "${cur}"))
                    return 0
                    ;;
                --tls-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tls-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --rate-limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ui-session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__sim)
            opts="-h --help rule help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__sim__subcmd__help)
            opts="rule help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__sim__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__sim__subcmd__help__subcmd__rule)
            opts="add list delete"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__sim__subcmd__help__subcmd__rule__subcmd__add)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__sim__subcmd__help__subcmd__rule__subcmd__delete)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__sim__subcmd__help__subcmd__rule__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__sim__subcmd__rule)
            opts="-h --help add list delete help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__sim__subcmd__rule__subcmd__add)
            opts="-h --on --when --outcome --reason --after --after-polls --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --on)
                    COMPREPLY=($(compgen -W "attach step" -- "${cur}"))
                    return 0
                    ;;
                --when)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --outcome)
                    COMPREPLY=($(compgen -W "rejected failed" -- "${cur}"))
                    return 0
                    ;;
                --reason)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after-polls)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__sim__subcmd__rule__subcmd__delete)
            opts="-h --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__sim__subcmd__rule__subcmd__help)
            opts="add list delete help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__sim__subcmd__rule__subcmd__help__subcmd__add)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__sim__subcmd__rule__subcmd__help__subcmd__delete)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__sim__subcmd__rule__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__sim__subcmd__rule__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__sim__subcmd__rule__subcmd__list)
            opts="-h --page-size --page-number --after --all --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --page-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --page-number)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store)
            opts="-h --help check migrate snapshot reset help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__check)
            opts="-h --repair --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__help)
            opts="check migrate snapshot reset help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__help__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__help__subcmd__migrate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__help__subcmd__reset)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__help__subcmd__snapshot)
            opts="save list restore delete"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__help__subcmd__snapshot__subcmd__delete)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__help__subcmd__snapshot__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__help__subcmd__snapshot__subcmd__restore)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__help__subcmd__snapshot__subcmd__save)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__migrate)
            opts="-h --to --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --to)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__reset)
            opts="-h --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__snapshot)
            opts="-h --help save list restore delete help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__snapshot__subcmd__delete)
            opts="-h --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__snapshot__subcmd__help)
            opts="save list restore delete help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__snapshot__subcmd__help__subcmd__delete)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__snapshot__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__snapshot__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__snapshot__subcmd__help__subcmd__restore)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__snapshot__subcmd__help__subcmd__save)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__snapshot__subcmd__list)
            opts="-h --page-size --page-number --after --all --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --page-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --page-number)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__snapshot__subcmd__restore)
            opts="-h --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__store__subcmd__snapshot__subcmd__save)
            opts="-h --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__template)
            opts="-h --help list steps help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__template__subcmd__help)
            opts="list steps help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__template__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__template__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__template__subcmd__help__subcmd__steps)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__template__subcmd__list)
            opts="-h --page-size --page-number --after --all --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --page-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --page-number)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__template__subcmd__steps)
            opts="-h --page-size --page-number --after --all --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --page-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --page-number)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__txn)
            opts="-h --help create get list parameters steps help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__txn__subcmd__create)
            opts="-h --body --program --application --template --reason --tag --param --check --wait --timeout --idempotency-key --dry-run --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --body)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --program)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --application)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --template)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --reason)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tag)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --param)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --check)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --idempotency-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__txn__subcmd__get)
            opts="-h --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__txn__subcmd__help)
            opts="create get list parameters steps help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__txn__subcmd__help__subcmd__create)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__txn__subcmd__help__subcmd__get)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__txn__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__txn__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__txn__subcmd__help__subcmd__parameters)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__txn__subcmd__help__subcmd__steps)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__txn__subcmd__list)
            opts="-h --status --template --program --customer --page-size --page-number --after --all --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --status)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --template)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --program)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --customer)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --page-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --page-number)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__txn__subcmd__parameters)
            opts="-h --page-size --page-number --after --all --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --page-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --page-number)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__txn__subcmd__steps)
            opts="-h --page-size --page-number --after --all --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --page-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --page-number)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__webhook)
            opts="-h --help create list get delete deliveries deliver help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__webhook__subcmd__create)
            opts="-h --url --events --description --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --events)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --description)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__webhook__subcmd__delete)
            opts="-h --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__webhook__subcmd__deliver)
            opts="-h --watch --interval --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__webhook__subcmd__deliveries)
            opts="-h --page-size --page-number --after --all --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --page-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --page-number)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__webhook__subcmd__get)
            opts="-h --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__webhook__subcmd__help)
            opts="create list get delete deliveries deliver help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__webhook__subcmd__help__subcmd__create)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__webhook__subcmd__help__subcmd__delete)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__webhook__subcmd__help__subcmd__deliver)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__webhook__subcmd__help__subcmd__deliveries)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__webhook__subcmd__help__subcmd__get)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__webhook__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__webhook__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__webhook__subcmd__list)
            opts="-h --page-size --page-number --after --all --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --page-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --page-number)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        payctl__subcmd__worker)
            opts="-h --watch --interval --help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _payctl -o nosort -o bashdefault -o default payctl
else
    complete -F _payctl -o bashdefault -o default payctl
fi
